"""Where a user's own ragtui files live: `$XDG_CONFIG_HOME/ragtui`, else `~/.config/ragtui`.

Only the UI reads this folder (themes, key map); the core never looks at it, so a
report is the same on every machine.
"""

from __future__ import annotations

from pathlib import Path

from ragtui.core.user_dirs import xdg_dir


def config_dir() -> Path:
    """The ragtui config folder; it need not exist."""
    return xdg_dir("XDG_CONFIG_HOME", ".config")


def user_themes_dir() -> Path:
    """Folder of user theme files (`*.yaml`)."""
    return config_dir() / "themes"


def keymap_path() -> Path:
    """The optional key map file: `binding-id: key` lines."""
    return config_dir() / "keymap.yaml"


def load_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """The user's key map (`binding-id: key`) and the problems found in it.

    Example `keymap.yaml`: `dashboard.failures: F` gives the failure list to Shift+F.
    Binding ids are listed in docs/ui.md. A bad file is reported, never fatal.
    """
    import yaml

    from ragtui.core.loading.yaml_safe import safe_load

    path = keymap_path() if path is None else path
    if not path.is_file():
        return {}, []
    try:
        data = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return {}, [f"{path}: cannot read the key map: {exc}"]
    if data is None:
        return {}, []
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in data.items()):
        return {}, [f"{path}: expected lines of `binding-id: key`, e.g. `dashboard.failures: F`"]
    return {key: value.strip() for key, value in data.items()}, []
