# The guest runner: kernel fetch and unpacking, module and initramfs
# builds, QEMU launch (see qemu/guest.h).
CAPTURE_SRC += qemu/cache.c qemu/kernel.c qemu/module.c qemu/initramfs.c qemu/run.c qemu/accel.c \
	qemu/module-guest.c \
	qemu/helper.c qemu/snapshot.c
# The trace channel is decoded with libtraceevent (Debian's libtraceevent-dev).
CAPTURE_SRC  += qemu/ftrace.c
CAPTURE_LIBS += $(shell pkg-config --libs libtraceevent 2>/dev/null || echo -ltraceevent)
CFLAGS       += $(shell pkg-config --cflags libtraceevent 2>/dev/null || echo -I/usr/include/traceevent)
