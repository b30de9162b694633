# Sourced by the fold tests (test-fold-*.sh) that write hand-made with_tla streams.
# ev NAME NID ROLE TERM VOTE COMMIT LOG: one trace event of node NID.
ev() {
	printf '{"name":"%s","nid":"%s","role":"State%s","state":{"term":%s,"vote":"%s","commit":%s},"log":%s}\n' "$@"
}
