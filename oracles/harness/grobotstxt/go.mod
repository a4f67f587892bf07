module repdiff.invalid/oracles/grobotstxt

go 1.24.0

require github.com/jimsmart/grobotstxt v1.0.3
