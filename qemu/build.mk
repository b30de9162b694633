# The guest runner: kernel fetch and unpacking, module and initramfs
# builds, QEMU launch (see qemu/guest.h).
CAPTURE_SRC += qemu/cache.c qemu/kernel.c qemu/module.c qemu/initramfs.c qemu/run.c qemu/accel.c \
	qemu/boot.c qemu/cmdline.c qemu/channel.c qemu/attempt.c \
	qemu/module-guest.c \
	qemu/helper.c qemu/snapshot.c
