module capture/scenarios/etcd

go 1.26

require (
	go.etcd.io/raft/v3 v3.7.0
	raft/lang v0.0.0
)

require google.golang.org/protobuf v1.36.11

replace raft/lang => ../raft/lang
