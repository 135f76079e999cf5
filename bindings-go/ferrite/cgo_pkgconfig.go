//go:build ferrite_pkgconfig

package ferrite

// With the ferrite_pkgconfig build tag (go build -tags ferrite_pkgconfig), the package builds
// against an installed libferrite found through pkg-config (ferrite.pc, written by
// `cargo cinstall`; set PKG_CONFIG_PATH for a prefix pkg-config does not search).

/*
#cgo pkg-config: ferrite
*/
import "C"
