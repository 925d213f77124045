"""localstack"""
