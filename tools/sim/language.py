"""The simulator's language (its words: tools/sim/narrate.py): --lang, else the choice kept from an earlier --lang, else the system locale (LC_ALL, LC_MESSAGES, LANG), else English."""
import json
import os
import sys

from tools.sim.narrate import LANGS

FILE = "simulator.json"   # beside the device's settings.json and scores.json, which the firmware owns: {"lang": "nl"}
DEFAULT = "en"


def from_locale(environ=None):
    """The language of the system locale, or None: as POSIX picks the messages locale, the first of LC_ALL,
    LC_MESSAGES, LANG that is set decides ("nl_NL.UTF-8", "nl_BE@euro", "nl" -> "nl"; "C", "de_DE" -> None)."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            code = value.split(".")[0].split("@")[0].split("_")[0].lower()
            return code if code in LANGS else None
    return None


def saved(folder):
    """The language an earlier --lang kept in `folder`, or None (none kept, no folder). A file that cannot be
    read as one is reported on stderr and ignored; nothing is changed."""
    if not folder:
        return None
    path = os.path.join(folder, FILE)
    try:
        with open(path) as f:
            data = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        print("tools.sim: ignoring %s: %s" % (path, e), file=sys.stderr)
        return None
    code = data.get("lang") if isinstance(data, dict) else None
    if code not in LANGS:
        print("tools.sim: ignoring %s: \"lang\" is %r, not one of %s" % (path, code, ", ".join(LANGS)), file=sys.stderr)
        return None
    return code


def save(folder, code):
    """Keep `code` in `folder` for the next runs (written whole, then renamed: never half a file)."""
    if code not in LANGS:
        raise ValueError("unknown language %r; valid languages: %s" % (code, ", ".join(LANGS)))
    path = os.path.join(folder, FILE)
    tmp = path + ".tmp"
    try:
        os.makedirs(folder, exist_ok=True)
        with open(tmp, "w") as f:
            json.dump({"lang": code}, f)
        os.replace(tmp, path)
    except OSError as e:   # a read-only folder: this run still speaks `code`
        print("tools.sim: could not keep the language in %s: %s" % (path, e), file=sys.stderr)


def choose(asked=None, folder=None, environ=None):
    """The language to speak: `asked` (--lang; kept in `folder` when there is one), else the one kept there,
    else the system locale's, else English."""
    if asked is not None:
        if folder:
            save(folder, asked)
        elif asked not in LANGS:
            raise ValueError("unknown language %r; valid languages: %s" % (asked, ", ".join(LANGS)))
        return asked
    return saved(folder) or from_locale(environ) or DEFAULT
