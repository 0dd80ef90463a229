// Not built yet: this package's issue will fill in its public API.
export {}
