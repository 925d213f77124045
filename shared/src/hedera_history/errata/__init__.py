"""errata"""
