"""Exception and warning classes shared by every pnetviz module."""


class InputError(Exception):
    """A user mistake (bad file, branch, option): reported in one message, exit code 2.

    The message names the offending file/branch and says how to fix it.
    """


class PnetvizWarning(UserWarning):
    """Suspicious but legal input, e.g. scores outside [0, 1] from a non-probability model."""


class MissingROOT(InputError):
    """PyROOT cannot be imported: pnetviz needs the ROOT of the user's environment (or the extra)."""
