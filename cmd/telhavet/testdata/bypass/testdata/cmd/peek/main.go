// Command peek lies in testdata, which ./... skips; go run builds it.
package main

import (
	"fmt"

	"telha.dev/core/storage"
)

func main() {
	fmt.Println(storage.Key{}) // bypass
}
