module go.etcd.io/etcd/client/v3

go 1.26.0
