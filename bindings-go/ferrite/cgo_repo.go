//go:build !ferrite_pkgconfig

package ferrite

// Without the ferrite_pkgconfig build tag, the package builds against this repository: the
// header in include/ and the libferrite.so that `cargo build --release -p ferrite-ffi` left
// in target/release (found at run time through an rpath). With another cargo target
// directory, point cgo at it: CGO_LDFLAGS="-L$DIR/release -Wl,-rpath,$DIR/release".

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -Wl,-rpath,${SRCDIR}/../../target/release -lferrite -lpthread -ldl -lm
*/
import "C"
