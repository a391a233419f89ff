"""The table of titer's float64 exp (titer/src/titer_vexp.h): 2^(j/16) for
j = 0..15 as a head (the nearest double, stored as its bits less j << 48,
so that adding the reduction's k << 48 puts 2^(k/16 - j/16) into the
exponent) and a tail (what the head misses, relative to it: 2^(j/16) =
head (1 + tail), tail rounded to the nearest double), and ln2/16 in a
36-bit head (so that k ln2/16 is exact for |k| < 2^17) and a tail.

    pip install mpmath
    python tools/exp_table.py

Prints the C initializers."""
import struct

import mpmath as mp

mp.mp.prec = 200
N = 16


def bits(d):
    return struct.unpack("<Q", struct.pack("<d", d))[0]


def main():
    heads, tails = [], []
    for j in range(N):
        t = mp.power(2, mp.mpf(j) / N)
        h = float(t)
        heads.append("0x%016xull" % ((bits(h) - (j << 48)) % 2 ** 64))
        tails.append(float.hex(float((t - mp.mpf(h)) / mp.mpf(h))))
    ln2n = mp.log(2) / N
    hi = float(mp.floor(ln2n * 2 ** 40) / 2 ** 40)       # 36 significant bits
    lo = float(ln2n - mp.mpf(hi))
    print("head bits:", ", ".join(heads))
    print("tails:", ", ".join(tails))
    print("ln2/16 head %s tail %s, 16/ln2 %s" % (float.hex(hi), float.hex(lo),
                                                 float.hex(float(N / mp.log(2)))))


if __name__ == "__main__":
    main()
