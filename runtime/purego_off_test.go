//go:build !purego

package runtime

// purego reports whether the tests were built with the purego tag (every
// assembly path off).
const purego = false
