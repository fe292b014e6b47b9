"""What people type into the write commands and modals: field validation (`fields.py`), one module per form
(`task.py`, `access.py`, `camera.py`), and reading a submission and the one submit path (`submission.py`)."""
