"""The one error a converter raises: a file it cannot read, its message starting with the file's path."""


class ConversionError(ValueError):
    """A file that could not be converted; the message starts with its path."""
