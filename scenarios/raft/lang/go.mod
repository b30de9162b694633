module raft/lang

go 1.26
