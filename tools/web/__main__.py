"""python -m tools.web build [--out DIR] [--board NAME] | serve [--port N] [--dir DIR]: the browser edition's static site."""
import argparse
import sys

from tools import web

EPILOG = """
examples:
  python -m tools.web build                      write the site to build/web
  python -m tools.web build --out site --board esp32s3
  python -m tools.web serve                      build, then serve on http://127.0.0.1:8015/
  python -m tools.web serve --port 0             any free port (printed)

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
    args = ap.parse_args(argv)
    try:
        if args.cmd == "build":
            web.build(args.out, board=args.board, compiled=not args.source, test_hooks=args.test_hooks)
            return 0
        if not args.no_build:
            web.build(args.dir, board=args.board, compiled=not args.source, test_hooks=args.test_hooks)
        srv = web.make_server(args.dir, args.port, quiet=False)
    except (web.WebBuildError, OSError) as e:
        print("tools.web: %s" % (e,), file=sys.stderr)
        return 2
    print("serving the browser edition at http://127.0.0.1:%d/  (Ctrl-C stops)" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
