# /guest.sh of the spin guest: hand the loaded module (prepare.sh) the
# scenario the host gave (capture_name, capture_steps; capture_stop=
# midway or midway-hang, the host's CAPTURE_GUEST_STOP, makes the module
# stop printing halfway) and run it, then ship the ftrace ring buffer the
# module's events went into to the trace channel (port 0x4e9).
# printf, echo and [ are the shell's builtins: no process started (each
# costs the restored guest a fork and exec, whose code TCG translates anew).
p=/sys/module/spin/parameters
printf %s "$capture_name" >$p/name || exit 1
printf %s "$capture_steps" >$p/steps || exit 1
[ -z "${capture_stop:-}" ] || printf %s "$capture_stop" >$p/stop || exit 1
echo 1 >$p/start || exit 1
[ "${capture_trace_kb:-256}" = 0 ] || exec /tracedump /tracing capture_spin lock
