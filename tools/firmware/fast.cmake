# MicroPython's bytecode interpreter and the runtime's hot paths at -O2 (the rest stays at the port's -Os): the
# game's search is the board's heaviest work. Given to the rp2 port as USER_C_MODULES by tools/firmware/builder.py;
# `python -m tools.bench --only rp2040` compares hard's heaviest moves on the stock and the frozen firmware.
foreach(f vm.c runtime.c map.c obj.c objint.c objtype.c gc.c)
    set_source_files_properties(${MICROPY_DIR}/py/${f} PROPERTIES COMPILE_OPTIONS "-O2")
endforeach()
