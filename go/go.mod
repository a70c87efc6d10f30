module codecbench/go

go 1.26.0

require (
	connectrpc.com/connect v1.21.1
	google.golang.org/protobuf v1.36.12
)

require golang.org/x/sys v0.50.0 // indirect
