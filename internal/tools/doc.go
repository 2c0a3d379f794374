// Package tools pins the release tools as a module of their own, so that
// their dependencies never mix with kubectl-chain's: goreleaser, which
// builds the release archives, checksums and the Homebrew cask, and krew's
// index validation, which the release test runs on the rendered manifest.
package tools
