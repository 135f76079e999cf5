module ferrite.invalid/ferrite

go 1.22
