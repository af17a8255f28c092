"""Make nbval's sanitize path work from any working directory."""

from pathlib import Path


def pytest_configure(config):
    path = getattr(config.option, "nbval_sanitize_with", None)
    if path and not Path(path).is_absolute():
        config.option.nbval_sanitize_with = str(Path(config.rootpath, path))
