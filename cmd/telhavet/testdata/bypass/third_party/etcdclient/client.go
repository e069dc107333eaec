// Package clientv3 is a stub of etcd's client.
package clientv3

// GetResponse is the answer to a Get.
type GetResponse struct{ Value []byte }

// Client is a connection to a cluster.
type Client struct{}

// Get reads a raw key.
func (*Client) Get(key string) (*GetResponse, error) { return &GetResponse{}, nil }
