module eosim.example/go-docs-sink

go 1.19
