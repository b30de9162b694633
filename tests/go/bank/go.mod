module capture.test/bank

go 1.26
