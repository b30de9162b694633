module nodes

go 1.26
