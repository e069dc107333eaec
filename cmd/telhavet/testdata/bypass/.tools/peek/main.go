// Command peek lies in a dot directory, which ./... skips and no code
// imports; go run ./.tools/peek builds it all the same.
package main

import (
	"fmt"

	"telha.dev/core/storage"
)

func main() {
	fmt.Println(storage.SystemScope{}.FullFamily(storage.Jobs).Valid()) // bypass
}
