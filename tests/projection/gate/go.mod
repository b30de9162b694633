module gate

go 1.26
