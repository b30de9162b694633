# /guest.sh of the spin guest: run the scenario the host put on the kernel
# command line (capture_name, capture_steps, capture_cpus; they reach /init
# as variables).
exec /bin/busybox insmod /spin.ko name="$capture_name" \
	steps="$capture_steps" cpus="${capture_cpus:-1}"
