"""Make a flash image of this checkout deployed onto the emulated Pico (machine code included), for beforeafter.py and profile.py: python mkimg.py DEST"""
import sys, time
from tools.rp2040 import deployed_image
t = time.time()
deployed_image(sys.argv[1])
print("image", sys.argv[1], "%.0f s" % (time.time() - t))
