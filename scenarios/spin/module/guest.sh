# /guest.sh of the spin guest: run the scenario the host put on the kernel
# command line (capture_name, capture_steps, capture_cpus; they reach /init
# as variables); capture_stop=midway or midway-hang (the host's
# CAPTURE_GUEST_STOP) makes the module stop printing halfway.
exec /bin/busybox insmod /spin.ko name="$capture_name" \
	steps="$capture_steps" cpus="${capture_cpus:-1}" stop="${capture_stop:-}"
