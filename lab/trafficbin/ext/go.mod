// Traefik's routing configuration extension points, as the directory
// pkg/config/dynamic/ext of github.com/traefik/traefik holds them at v3.7.13:
// a module of its own there, which Traefik's go.mod replaces with that
// directory and which therefore is in no module zip. trafficbin's go.mod
// replaces it with this copy (two empty structs).
module github.com/traefik/traefik/dynamic/ext

go 1.26.0
