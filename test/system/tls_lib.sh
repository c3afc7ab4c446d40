# Shared by the HTTPS tests (sourced, after server_lib.sh): a test CA and certificates made with
# openssl from Debian, in $certs (under $tmp). EC P-256 keys, unencrypted.

certs=$tmp/certs
mkdir -p "$certs"
new_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1" 2>/dev/null; }
make_ca() {  # make_ca NAME: $certs/NAME.pem and .key, valid for 2 days
    new_key "$certs/$1.key"
    openssl req -x509 -new -key "$certs/$1.key" -out "$certs/$1.pem" -days 2 -subj "/CN=$1" \
        2>/dev/null || fail "openssl: CA $1"
}
make_cert() {  # make_cert NAME CA SUBJECT_ALT_NAMES DAYS: $certs/NAME.pem signed by CA
    new_key "$certs/$1.key"
    openssl req -new -key "$certs/$1.key" -out "$certs/$1.csr" -subj "/CN=$1" 2>/dev/null
    printf 'subjectAltName=%s\n' "$3" >"$certs/$1.ext"
    openssl x509 -req -in "$certs/$1.csr" -CA "$certs/$2.pem" -CAkey "$certs/$2.key" \
        -CAcreateserial -out "$certs/$1.pem" -days "$4" -extfile "$certs/$1.ext" 2>/dev/null ||
        fail "openssl: certificate $1"
}
