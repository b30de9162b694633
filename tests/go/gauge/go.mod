module capture.test/gauge

go 1.26
