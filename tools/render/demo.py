"""A key script played on the real firmware, rendered as a captioned GIF and/or a PNG (`python -m tools.render demo`)."""
import json
from pathlib import Path

from tools.render.common import RenderError, load_board
from tools.render.frames import FrameRenderer, Panel, frame_at, sample, write_gif

def record_script(path, board="pico", mode="2p", seed=0):
    """Play a key script on the firmware (tools.sim.Device) -> (frames [(t, pixels)], captions [(t, text)]).

    Lines starting with `;;` are captions (comments to the simulator): each
    shows from the moment the script reaches it, so captions stay in step with
    the game however the firmware's timing changes.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise RenderError("cannot read script %s: %s" % (path, e.strerror))
    from tools.sim import Device
    from tools.sim.keyscript import parse_script
    try:
        parse_script(text)                 # all errors up front, with the file's own line numbers
    except ValueError as e:
        raise RenderError("script %s: %s" % (path, e))
    frames, captions = [], []
    try:
        dev = Device(board=board, mode=mode, seed=seed, keep_frames=False,
                     on_frame=lambda t, px: frames.append((t, [tuple(c) for c in px])))
    except ValueError as e:
        raise RenderError(str(e))
    try:
        chunk = []
        for line in text.split("\n") + [";;"]:
            if line.strip().startswith(";;"):
                if chunk:
                    dev.run_script("\n".join(chunk))
                    chunk = []
                captions.append((frames[-1][0] if frames else 0, line.strip()[2:].strip()))
            else:
                chunk.append(line)
    finally:
        dev.close()
    if not frames:
        raise RenderError("script %s: the firmware wrote no frames" % path)
    return frames, captions[:-1]


def caption_frames(frames, captions):
    """[(t, pixels)] -> [(t, (pixels, caption))]: the caption last reached at each frame's time."""
    out, k, cap = [], 0, None
    for t, px in frames:
        while k < len(captions) and captions[k][0] <= t:
            cap = captions[k][1] or None
            k += 1
        out.append((t, (px, cap)))
    return out


def add_parser(sub):
    p = sub.add_parser(
        "demo", help="play a key script on the firmware and render it (captioned GIF, PNG)",
        description="Play a key script on the real firmware (tools.sim.Device) and render it: a captioned GIF "
                    "(`;;` lines of the script are the captions) and/or a PNG of one moment.")
    p.add_argument("script", help="key script, as for `python -m tools.sim --headless --script`")
    p.add_argument("--board", default="pico")
    p.add_argument("--mode", default="2p")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gif", metavar="OUT.gif")
    p.add_argument("--png", metavar="OUT.png", help="one moment, without caption (see --at)")
    p.add_argument("--at", type=float, metavar="MS", help="time of the PNG (default: the last frame)")
    p.add_argument("--frames", metavar="OUT.jsonl", help="also save the recorded frames")
    p.add_argument("--fps", type=float, default=8.0)
    p.add_argument("--pitch", type=int, default=44)
    p.add_argument("--png-pitch", type=int, default=56)
    p.add_argument("--max-bytes", type=int, default=1_500_000)
    p.set_defaults(run=run, parser=p)
    return p


def run(a):
    if not (a.gif or a.png or a.frames):
        a.parser.error("nothing to do: give --gif, --png and/or --frames")
    load_board(a.board)
    frames, captions = record_script(a.script, a.board, a.mode, a.seed)
    print("%s: %d frames, %.1f s, %d captions" % (a.script, len(frames), frames[-1][0] / 1000.0, len(captions)))
    if a.frames:
        with open(a.frames, "w") as f:
            for t, px in frames:
                f.write(json.dumps({"t": t, "pixels": [list(c) for c in px]}, separators=(",", ":")) + "\n")
        print("%s: frames saved" % a.frames)
    if a.png:
        r = FrameRenderer(a.board, frames, pitch=a.png_pitch)
        t, px = frame_at(frames, a.at) if a.at is not None else frames[-1]
        r.image(px).save(a.png, optimize=True)
        print("%s: frame at t=%s ms" % (a.png, t))
    if a.gif:
        r = FrameRenderer(a.board, frames, pitch=a.pitch)
        r.panel = Panel(a.pitch, caption_band=True)
        s = sample(caption_frames(frames, captions), a.fps)
        size, n, dims = write_gif(r, s, a.gif, a.max_bytes)
        print("%s: %d distinct frames, %dx%d, %.1f s, %d bytes"
              % (a.gif, n, dims[0], dims[1], sum(d for _, d in s) / 1000.0, size))
