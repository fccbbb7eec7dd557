"""What the lab says when it cannot go on: one line, and an exit status."""


class LabError(Exception):
    """A reason the lab stops, in words for the user; status 2 by default
    (something is missing or wrong before anything was measured)."""

    def __init__(self, message, status=2):
        super().__init__(message)
        self.status = status
