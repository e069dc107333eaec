// Command dump lies in an underscore directory that ./... skips and no code
// imports; go run ./_tools/dump builds it all the same.
package main

import (
	"fmt"

	"telha.dev/core/storage"
)

func main() {
	fmt.Println(storage.SystemScope{}.FullFamily(storage.Jobs).Valid()) // bypass
}
