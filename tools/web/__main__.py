"""python -m tools.web build [--out DIR] [--board NAME] | serve [--port N] [--dir DIR] [--player cmd:COMMAND]: the browser edition's static site, and the server that can seat a student's bot."""
import argparse
import signal
import sys

from tools import web

EPILOG = """
examples:
  python -m tools.web build                      write the site to build/web
  python -m tools.web build --out site --board esp32s3
  python -m tools.web serve                      build, then serve on http://127.0.0.1:8015/
  python -m tools.web serve --port 0             any free port (printed)
  python -m tools.web serve --player "cmd:.venv/bin/python docs/examples/mybot.py"
                                                 your bot plays white (pad B) in the
                                                 games against the computer

--player runs the command on this machine, one process per open page (never
a command from the browser); only this server's own pages on 127.0.0.1 can
ask it. The folder it serves stays a static site without a bot seat.

The site is static (relative URLs, no external requests): copy the folder to
any web server or GitHub Pages as it is. Browsers do not run the webassembly
port from file://, so open it through a server.
page options: ?mode=2p|easy|medium|hard|tutorial|demo|menu|keytest  ?seed=N  ?lang=en|nl
  (the language is kept; without ?lang= the kept choice, else the browser's language)
  ?clock=manual only in a site built with --test-hooks (the test suite's: it also
  exposes the page's Python, which can read a pending move; never give it to players)
"""


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.web", description="Build or serve the browser edition (the device firmware in a web page).",
                                 epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="write the static site")
    b.add_argument("--out", default=str(web.DEFAULT_OUT), help="folder to write (default: %(default)s)")
    b.add_argument("--board", default="pico", help="board file the page emulates (default: %(default)s)")
    b.add_argument("--source", action="store_true", help="ship engine/ and firmware/ as .py source instead of .mpy (as deploy)")
    b.add_argument("--test-hooks", action="store_true", help="for the test suite only: expose the page's Python and the manual clock")
    s = sub.add_parser("serve", help="build the site, then serve it on 127.0.0.1")
    s.add_argument("--port", type=int, default=8015, help="port (default: %(default)s; 0 = any free port)")
    s.add_argument("--dir", default=str(web.DEFAULT_OUT), help="site folder (default: %(default)s)")
    s.add_argument("--board", default="pico", help="board file the page emulates (default: %(default)s)")
    s.add_argument("--source", action="store_true", help="ship engine/ and firmware/ as .py source instead of .mpy (as deploy)")
    s.add_argument("--test-hooks", action="store_true", help="for the test suite only: expose the page's Python and the manual clock")
    s.add_argument("--no-build", action="store_true", help="serve --dir as it is")
    s.add_argument("--player", metavar="[NAME=]cmd:COMMAND",
                   help="a student's bot in the computer's seat: it plays white in easy, medium and hard "
                        "(docs/classroom.md \"Write your own bot\")")
    s.add_argument("--reply-timeout", type=float, default=None, metavar="S",
                   help="seconds the bot may think about one move (default: tools/botproc.py REPLY_TIMEOUT)")
    args = ap.parse_args(argv)
    if args.cmd == "serve" and args.player is not None:
        from tools.botproc import parse_spec

        try:
            parse_spec(args.player)  # checked before the build: a typo costs nothing
        except ValueError as e:
            ap.error(str(e))
        if args.reply_timeout is not None and not args.reply_timeout > 0:
            ap.error("--reply-timeout must be more than 0 seconds")
    try:
        if args.cmd == "build":
            web.build(args.out, board=args.board, compiled=not args.source, test_hooks=args.test_hooks)
            return 0
        if not args.no_build:
            web.build(args.dir, board=args.board, compiled=not args.source, test_hooks=args.test_hooks)
        srv = web.make_server(args.dir, args.port, quiet=False, player=args.player, reply_timeout=args.reply_timeout)
    except (web.WebBuildError, OSError) as e:
        print("tools.web: %s" % (e,), file=sys.stderr)
        return 2
    print("serving the browser edition at http://127.0.0.1:%d/  (Ctrl-C stops)" % srv.server_address[1], flush=True)
    relay = getattr(srv, "relay", None)
    if relay is not None:
        print("your bot %s plays white (pad B) in the games against the computer (menu keys 2, 3, 4 or ?mode=easy)"
              % relay.name, flush=True)

    def stop(signum, frame):
        raise KeyboardInterrupt  # as Ctrl-C: the bots' processes end below (a terminal closed, a kill)

    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, stop)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()  # with --player: every bot process ends too
    return 0


if __name__ == "__main__":
    sys.exit(main())
