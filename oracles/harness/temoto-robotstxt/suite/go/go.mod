module github.com/temoto/robotstxt

go 1.11

require github.com/stretchr/testify v1.3.0
