#!/usr/bin/env python3
"""Independent reference for the loader's HMAC-MD2: MD2 written from RFC 1319 in Python, HMAC
from Python's standard hmac module (RFC 2104). Prints the values IntegrityCheckTest.cpp expects;
run it to regenerate them."""
import hmac

# RFC 1319 section 3.2: the permutation derived from pi, as printed in the RFC.
S = [
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19, 98, 167, 5, 243, 192, 199,
    115, 140, 152, 147, 43, 217, 188, 76, 130, 202, 30, 155, 87, 60, 253, 212, 224, 22, 103, 66,
    111, 24, 138, 23, 229, 18, 190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47,
    238, 122, 169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33, 128, 127, 93,
    154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3, 255, 25, 48, 179, 72, 165, 181, 209,
    215, 94, 146, 42, 172, 86, 170, 198, 79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226,
    156, 116, 4, 241, 69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2, 27,
    96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15, 85, 71, 163, 35, 221, 81,
    175, 58, 195, 92, 249, 206, 186, 197, 234, 38, 44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205,
    244, 65, 129, 77, 82, 106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57, 242, 239, 183, 14,
    102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10, 49, 68, 80, 180, 143, 237, 31, 26,
    219, 153, 141, 51, 159, 17, 131, 20]


def md2_bytes(msg):
    pad = 16 - len(msg) % 16
    msg = msg + bytes([pad]) * pad
    c = [0] * 16
    last = 0
    for i in range(0, len(msg), 16):
        for j in range(16):
            c[j] ^= S[msg[i + j] ^ last]
            last = c[j]
    msg = msg + bytes(c)
    x = [0] * 48
    for i in range(0, len(msg), 16):
        for j in range(16):
            x[16 + j] = msg[i + j]
            x[32 + j] = x[16 + j] ^ x[j]
        t = 0
        for r in range(18):
            for k in range(48):
                x[k] ^= S[t]
                t = x[k]
            t = (t + r) % 256
    return bytes(x[:16])


class MD2:
    """Enough of the hashlib interface for hmac.new(digestmod=MD2)."""
    digest_size = 16
    block_size = 16
    name = 'md2'

    def __init__(self, data=b''):
        self.buf = bytes(data)

    def update(self, data):
        self.buf += bytes(data)

    def copy(self):
        return MD2(self.buf)

    def digest(self):
        return md2_bytes(self.buf)

    def hexdigest(self):
        return self.digest().hex()


if __name__ == '__main__':
    assert md2_bytes(b'abc').hex() == 'da853b0d3f88d99b30283a69e6ded6bb'  # RFC 1319 A.5
    key = bytes.fromhex('146addae53a9a752aa0841360bf55a9f')
    for name, k, m in [('short key', b'key', b'The quick brown fox jumps over the lazy dog'),
                       ('integrity key, 76-byte message', key, bytes(range(76))),
                       ('long key', bytes(range(40)), b'abc')]:
        print(name, hmac.new(k, m, MD2).hexdigest())
    import struct
    msg = struct.pack('<IIIIQQQQ', 13000, 13002, 0, 0, 0, 0, 0, 0)
    print('integrity answer for challenge 13002, driver 13000, other fields 0:',
          hmac.new(key, msg, MD2).hexdigest())
