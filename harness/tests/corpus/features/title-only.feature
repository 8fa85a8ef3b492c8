Feature:
