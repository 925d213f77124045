"""cardinal"""
