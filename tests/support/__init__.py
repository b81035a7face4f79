"""What several tests share and that is not a test: the schema tap, the hostile peer model, real
redis and gunicorn, and the line naming what a run skipped.
"""
