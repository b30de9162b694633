# /guest.sh of a module guest (qemu/module-guest.c): hand the module that
# prepare.sh loaded the scenario the host gave (capture_name,
# capture_steps; capture_stop= midway or midway-hang, the host's
# CAPTURE_GUEST_STOP, makes the spin module stop printing halfway) and run
# it.  With tracing, the resident tracedump does it: woken by the words
# written to /trace.fifo, it writes them into the module's parameters
# through files it opened before the snapshot, writes start, then ships
# the ftrace ring buffer the module's events went into to the trace
# channel (port 0x4e9) and answers on the FIFO.  /init sources this in a
# subshell, and printf, echo, read and [ are the shell's builtins: no
# program is started (each costs a restored guest its loading anew, TCG
# translating all its code again).
if [ "${capture_trace_kb:-256}" = 0 ]; then
	p=/sys/module/$capture_module/parameters
	printf %s "$capture_name" >$p/name || exit 1
	printf %s "$capture_steps" >$p/steps || exit 1
	[ -z "${capture_stop:-}" ] || printf %s "$capture_stop" >$p/stop || exit 1
	echo 1 >$p/start
	exit
fi
echo "$capture_name
$capture_steps
${capture_stop:-}" >/trace.fifo || exit 1
read -r shipped </trace.fifo
[ "$shipped" = ok ] || { echo "tracedump: $shipped" >&2; exit 1; }
