"""A test certificate authority and a server certificate for 127.0.0.1/localhost, made at test time
(cryptography, pinned in requirements-dev.txt): the firmware's HTTPS is checked against a CA it is
given, as it is given Lichess's roots on the board. A second, unrelated CA makes a certificate that
must be refused."""
import datetime
import ipaddress

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def _name(text):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def make(dir_path, ca_name="Test Root CA", hosts=("localhost",), days=30, not_before_days=-1):
    """Writes ca.pem, ca.der, server.pem, server.key in dir_path (a pathlib.Path); returns their paths."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name(ca_name)).issuer_name(_name(ca_name))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=365))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    alt = [x509.DNSName(h) for h in hosts] + [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (x509.CertificateBuilder().subject_name(_name(hosts[0])).issuer_name(_name(ca_name))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now + datetime.timedelta(days=not_before_days))
            .not_valid_after(now + datetime.timedelta(days=days))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(ca_key, hashes.SHA256()))
    dir_path.mkdir(parents=True, exist_ok=True)
    paths = {"ca.pem": ca.public_bytes(serialization.Encoding.PEM),
             "ca.der": ca.public_bytes(serialization.Encoding.DER),
             "server.pem": cert.public_bytes(serialization.Encoding.PEM) + ca.public_bytes(serialization.Encoding.PEM),
             "server.key": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                             serialization.NoEncryption())}
    out = {}
    for name, data in paths.items():
        (dir_path / name).write_bytes(data)
        out[name] = str(dir_path / name)
    return out
