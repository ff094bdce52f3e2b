/* exp and log for the browser engine with the bits of the C library the numba engine calls (glibc 2.28 and later
 * on x86-64 with FMA, the algorithm of ARM's optimized-routines), so that both engines compute the same weights
 * and a* and therefore choose the same trees even where candidates are tied to the last bit. Math.exp differs
 * from it in the last bit on about 7 % of arguments, and then a tie broken by rounding can go the other way.
 *
 * exp: x = k ln2/128 + r, exp(x) = 2^(k/128) exp(r), 2^(k/128) = H[j] (1 + T[j]) 2^floor(k/128) with j = k mod 128
 * (H = 2^(j/128) rounded, T = the relative rest rounded: mathematical values, generated and checked by
 * rebel.ui.browser.engine.exp_table), exp(r) - 1 by the library's degree-5 polynomial, every multiply-add fused
 * where the library's FMA build fuses it (``fma``: an exact emulation; JavaScript has no fused multiply-add).
 * log: the correctly rounded logarithm (the C library's log was correctly rounded on every argument compared):
 * Math.log's result y, corrected by log(x / e^y) with e^y in double-double arithmetic.
 * Both are for finite arguments in the ranges the engine uses (|x| < 512 for exp, normal x > 0 for log); outside
 * them they return Math.exp / Math.log.
 */
(function (root) {
  "use strict";

  const bitsToDoubles = (bits) => new Float64Array(new BigUint64Array(bits).buffer);
  // 2^(j/128) = H[j] (1 + T[j]), j = 0..127.
  const H = bitsToDoubles([
    0x3ff0000000000000n, 0x3ff0163da9fb3335n, 0x3ff02c9a3e778061n, 0x3ff04315e86e7f85n, 0x3ff059b0d3158574n,
    0x3ff0706b29ddf6den, 0x3ff0874518759bc8n, 0x3ff09e3ecac6f383n, 0x3ff0b5586cf9890fn, 0x3ff0cc922b7247f7n,
    0x3ff0e3ec32d3d1a2n, 0x3ff0fb66affed31bn, 0x3ff11301d0125b51n, 0x3ff12abdc06c31ccn, 0x3ff1429aaea92de0n,
    0x3ff15a98c8a58e51n, 0x3ff172b83c7d517bn, 0x3ff18af9388c8dean, 0x3ff1a35beb6fcb75n, 0x3ff1bbe084045cd4n,
    0x3ff1d4873168b9aan, 0x3ff1ed5022fcd91dn, 0x3ff2063b88628cd6n, 0x3ff21f49917ddc96n, 0x3ff2387a6e756238n,
    0x3ff251ce4fb2a63fn, 0x3ff26b4565e27cddn, 0x3ff284dfe1f56381n, 0x3ff29e9df51fdee1n, 0x3ff2b87fd0dad990n,
    0x3ff2d285a6e4030bn, 0x3ff2ecafa93e2f56n, 0x3ff306fe0a31b715n, 0x3ff32170fc4cd831n, 0x3ff33c08b26416ffn,
    0x3ff356c55f929ff1n, 0x3ff371a7373aa9cbn, 0x3ff38cae6d05d866n, 0x3ff3a7db34e59ff7n, 0x3ff3c32dc313a8e5n,
    0x3ff3dea64c123422n, 0x3ff3fa4504ac801cn, 0x3ff4160a21f72e2an, 0x3ff431f5d950a897n, 0x3ff44e086061892dn,
    0x3ff46a41ed1d0057n, 0x3ff486a2b5c13cd0n, 0x3ff4a32af0d7d3den, 0x3ff4bfdad5362a27n, 0x3ff4dcb299fddd0dn,
    0x3ff4f9b2769d2ca7n, 0x3ff516daa2cf6642n, 0x3ff5342b569d4f82n, 0x3ff551a4ca5d920fn, 0x3ff56f4736b527dan,
    0x3ff58d12d497c7fdn, 0x3ff5ab07dd485429n, 0x3ff5c9268a5946b7n, 0x3ff5e76f15ad2148n, 0x3ff605e1b976dc09n,
    0x3ff6247eb03a5585n, 0x3ff6434634ccc320n, 0x3ff6623882552225n, 0x3ff68155d44ca973n, 0x3ff6a09e667f3bcdn,
    0x3ff6c012750bdabfn, 0x3ff6dfb23c651a2fn, 0x3ff6ff7df9519484n, 0x3ff71f75e8ec5f74n, 0x3ff73f9a48a58174n,
    0x3ff75feb564267c9n, 0x3ff780694fde5d3fn, 0x3ff7a11473eb0187n, 0x3ff7c1ed0130c132n, 0x3ff7e2f336cf4e62n,
    0x3ff80427543e1a12n, 0x3ff82589994cce13n, 0x3ff8471a4623c7adn, 0x3ff868d99b4492edn, 0x3ff88ac7d98a6699n,
    0x3ff8ace5422aa0dbn, 0x3ff8cf3216b5448cn, 0x3ff8f1ae99157736n, 0x3ff9145b0b91ffc6n, 0x3ff93737b0cdc5e5n,
    0x3ff95a44cbc8520fn, 0x3ff97d829fde4e50n, 0x3ff9a0f170ca07ban, 0x3ff9c49182a3f090n, 0x3ff9e86319e32323n,
    0x3ffa0c667b5de565n, 0x3ffa309bec4a2d33n, 0x3ffa5503b23e255dn, 0x3ffa799e1330b358n, 0x3ffa9e6b5579fdbfn,
    0x3ffac36bbfd3f37an, 0x3ffae89f995ad3adn, 0x3ffb0e07298db666n, 0x3ffb33a2b84f15fbn, 0x3ffb59728de5593an,
    0x3ffb7f76f2fb5e47n, 0x3ffba5b030a1064an, 0x3ffbcc1e904bc1d2n, 0x3ffbf2c25bd71e09n, 0x3ffc199bdd85529cn,
    0x3ffc40ab5fffd07an, 0x3ffc67f12e57d14bn, 0x3ffc8f6d9406e7b5n, 0x3ffcb720dcef9069n, 0x3ffcdf0b555dc3fan,
    0x3ffd072d4a07897cn, 0x3ffd2f87080d89f2n, 0x3ffd5818dcfba487n, 0x3ffd80e316c98398n, 0x3ffda9e603db3285n,
    0x3ffdd321f301b460n, 0x3ffdfc97337b9b5fn, 0x3ffe264614f5a129n, 0x3ffe502ee78b3ff6n, 0x3ffe7a51fbc74c83n,
    0x3ffea4afa2a490dan, 0x3ffecf482d8e67f1n, 0x3ffefa1bee615a27n, 0x3fff252b376bba97n, 0x3fff50765b6e4540n,
    0x3fff7bfdad9cbe14n, 0x3fffa7c1819e90d8n, 0x3fffd3c22b8f71f1n,
  ]);
  const T = bitsToDoubles([
    0x0000000000000000n, 0x3c9b3b4f1a88bf6en, 0xbc7160139cd8dc5dn, 0xbc905e7a108766d1n, 0x3c8cd2523567f613n,
    0xbc8bce8023f98efan, 0x3c60f74e61e6c861n, 0x3c90a3e45b33d399n, 0x3c979aa65d837b6dn, 0x3c8eb51a92fdeffcn,
    0x3c3ebe3d702f9cd1n, 0xbc6a033489906e0bn, 0xbc9556522a2fbd0en, 0xbc5080ef8c4eea55n, 0xbc91c923b9d5f416n,
    0x3c80d3e3e95c55afn, 0xbc801b15eaa59348n, 0xbc8f1ff055de323dn, 0x3c8b898c3f1353bfn, 0xbc96d99c7611eb26n,
    0x3c9aecf73e3a2f60n, 0xbc8fe782cb86389dn, 0x3c8a6f4144a6c38dn, 0x3c807a05b0e4047dn, 0x3c968efde3a8a894n,
    0x3c875e18f274487dn, 0x3c80472b981fe7f2n, 0xbc96b87b3f71085en, 0x3c82f7e16d09ab31n, 0xbc3d219b1a6fbffan,
    0x3c8b3782720c0ab4n, 0x3c6e149289cecb8fn, 0x3c834d754db0abb6n, 0x3c864201e2ac744cn, 0x3c8fdd395dd3f84an,
    0xbc86a3803b8e5b04n, 0xbc924aedcc4b5068n, 0xbc9907f81b512d8en, 0xbc71d1e83e9436d2n, 0xbc991919b3ce1b15n,
    0x3c859f48a72a4c6dn, 0xbc9312607a28698an, 0xbc58a78f4817895bn, 0xbc7c2c9b67499a1bn, 0x3c4363ed60c2ac11n,
    0x3c9666093b0664efn, 0x3c6ecce1daa10379n, 0x3c93ff8e3f0f1230n, 0x3c7690cebb7aafb0n, 0x3c931dbdeb54e077n,
    0xbc8f94340071a38en, 0xbc87deccdc93a349n, 0xbc78dec6bd0f385fn, 0xbc861246ec7b5cf6n, 0x3c93350518fdd78en,
    0x3c7b98b72f8a9b05n, 0x3c9063e1e21c5409n, 0x3c34c7855019c6ean, 0x3c9432e62b64c035n, 0xbc8ce44a6199769fn,
    0xbc8c33c53bef4da8n, 0xbc845378892be9aen, 0xbc93cedd78565858n, 0x3c5710aa807e1964n, 0xbc93b3efbf5e2228n,
    0xbc6a12ad8734b982n, 0xbc6367efb86da9een, 0xbc80dc3d54e08851n, 0xbc781f647e5a3ecfn, 0xbc86ee4ac08b7db0n,
    0xbc8619321e55e68an, 0x3c909ccb5e09d4d3n, 0xbc7b32dcb94da51dn, 0x3c94ecfd5467c06bn, 0x3c65ebe1abd66c55n,
    0xbc88a1c52fb3cf42n, 0xbc9369b6f13b3734n, 0xbc805e843a19ff1en, 0xbc94d450d872576en, 0x3c90ad675b0e8a00n,
    0x3c8db72fc1f0eab4n, 0xbc65b6609cc5e7ffn, 0x3c7bf68359f35f44n, 0xbc93091fa71e3d83n, 0xbc5da9b88b6c1e29n,
    0xbc6c23f97c90b959n, 0xbc92434322f4f9aan, 0xbc85ca6cd7668e4bn, 0x3c71affc2b91ce27n, 0x3c6dd235e10a73bbn,
    0xbc87c50422622263n, 0x3c8b1c86e3e231d5n, 0xbc91bbd1d3bcbb15n, 0x3c90cc319cee31d2n, 0x3c8469846e735ab3n,
    0xbc82dfcd978e9db4n, 0x3c8c1a7792cb3387n, 0xbc907b8f4ad1d9fan, 0xbc55c3d956dcaeban, 0xbc90a40e3da6f640n,
    0xbc68d6f438ad9334n, 0xbc91eee26b588a35n, 0x3c74ffd70a5fddcdn, 0xbc91bdfbfa9298acn, 0x3c736eae30af0cb3n,
    0x3c8ee3325c9ffd94n, 0x3c84e08fd10959acn, 0x3c63cdaf384e1a67n, 0x3c676b2c6c921968n, 0xbc808a1883ccb5d2n,
    0xbc8fad5d3ffffa6fn, 0xbc900dae3875a949n, 0x3c74a385a63d07a7n, 0xbc82919e2040220fn, 0x3c8e5a50d5c192acn,
    0x3c843a59ac016b4bn, 0xbc82d52107b43e1fn, 0xbc892ab93b470dc9n, 0x3c74b604603a88d3n, 0x3c83c5ec519d7271n,
    0xbc8ff7128fd391f0n, 0xbc8dae98e223747dn, 0x3c8ec3bc41aa2008n, 0x3c842b94c3a9eb32n, 0x3c8a64a931d185een,
    0xbc8e37bae43be3edn, 0x3c77893b4d91cd9dn, 0x3c5305c14160cc89n,
  ]);
  // 128 / ln2, -ln2/128 in two parts, the library's polynomial C2..C5, 1.5 * 2^52
  const [INV_LN2_N, NEG_LN2_HI_N, NEG_LN2_LO_N, C2, C3, C4, C5, SHIFT] = bitsToDoubles([
    0x40671547652b82fen, 0xbf762e42fefa0000n, 0xbd0cf79abc9e3b3an, 0x3fdffffffffffdbdn,
    0x3fc555555555543cn, 0x3fa55555cf172b91n, 0x3f81111167a4d017n, 0x4338000000000000n,
  ]);
  // ln2/128 in three parts, 1/6 and 1/24 in two, 1/5! .. 1/9!
  const [L1, L2, L3, SIXTH_HI, SIXTH_LO, TWENTYFOURTH_HI, TWENTYFOURTH_LO, F5, F6, F7, F8, F9] = bitsToDoubles([
    0x3f762e42fefa39efn, 0x3c0abc9e3b39803fn, 0x3897b57a079a1934n, 0x3fc5555555555555n,
    0x3c65555555555555n, 0x3fa5555555555555n, 0x3c45555555555555n, 0x3f81111111111111n,
    0x3f56c16c16c16c17n, 0x3f2a01a01a01a01an, 0x3efa01a01a01a01an, 0x3ec71de3a556c734n,
  ]);
  const TWO_M54 = 5.551115123125783e-17; // 2^-54
  const MIN_NORMAL = 2.2250738585072014e-308;
  const SPLIT = 134217729; // 2^27 + 1 (Veltkamp's split)
  const POW2 = new Float64Array(2100); // POW2[e + 1050] = 2^e, e = -1050 .. 1049 (Math.pow is 40x slower)
  POW2[1050] = 1.0;
  for (let e = 1; e < 1050; e++) POW2[1050 + e] = POW2[1049 + e] * 2.0;
  for (let e = 1; e <= 1050; e++) POW2[1050 - e] = POW2[1051 - e] * 0.5;

  const word = new Float64Array(1);
  const half = new Uint32Array(word.buffer); // little-endian: half[0] holds the last mantissa bits

  /* u rounded to odd: moved one unit in the last place toward err when err != 0 and u is even. */
  function toOdd(u, err) {
    if (err === 0) return u;
    word[0] = u;
    if ((half[0] & 1) !== 0) return u;
    if ((err > 0) === (u > 0)) {
      if (half[0] === 0xffffffff) {
        half[0] = 0;
        half[1] += 1;
      } else half[0] += 1;
    } else if (half[0] === 0) {
      half[0] = 0xffffffff;
      half[1] -= 1;
    } else half[0] -= 1;
    return word[0];
  }

  /* a b + c rounded once (Boldo and Melquiond's emulation: the exact product a b = p + pe (Dekker), the exact sum
   * p + c = s + se (Knuth), then s + (se + pe rounded to odd)). No overflow or underflow in the engine's ranges. */
  function fma(a, b, c) {
    const p = a * b;
    let t = SPLIT * a;
    const ah = t - (t - a), al = a - ah;
    t = SPLIT * b;
    const bh = t - (t - b), bl = b - bh;
    const pe = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    const s = p + c;
    let v = s - p;
    const se = (p - (s - v)) + (c - v);
    const u = se + pe;
    v = u - se;
    return s + toOdd(u, (se - (u - v)) + (pe - v));
  }

  function exp(x) {
    const ax = Math.abs(x);
    if (!(ax >= TWO_M54 && ax < 512)) return ax < TWO_M54 ? 1.0 + x : Math.exp(x);
    const kd = fma(x, INV_LN2_N, SHIFT) - SHIFT; // k = round(x 128 / ln2)
    const r = fma(kd, NEG_LN2_LO_N, fma(kd, NEG_LN2_HI_N, x));
    const j = kd & 127;
    const r2 = r * r;
    const tmp = fma(r2 * r2, fma(r, C5, C4), fma(fma(r, C3, C2), r2, r + T[j]));
    const scale = H[j] * POW2[(kd - j) / 128 + 1050]; // exact: a power of two times H[j]
    return fma(scale, tmp, scale);
  }

  /* e^y as a double-double (hi, lo) in DD[0], DD[1], relative error about 2^-100 (|y| < 700). Double-double
   * steps written out (Dekker's product, Knuth's sum), so that nothing is allocated. */
  const DD = new Float64Array(2);
  let hi = 0.0, lo = 0.0; // the running double-double
  function addDD(bh, bl) { // (hi, lo) += (bh, bl)
    const s = hi + bh;
    const v = s - hi;
    const e = (hi - (s - v)) + (bh - v) + (lo + bl);
    hi = s + e;
    lo = e - (hi - s);
  }
  function mulDD(bh, bl) { // (hi, lo) *= (bh, bl)
    const p = hi * bh;
    let t = SPLIT * hi;
    const ah = t - (t - hi), al = hi - ah;
    t = SPLIT * bh;
    const ch = t - (t - bh), cl = bh - ch;
    const e = (((ah * ch - p) + ah * cl + al * ch) + al * cl) + (hi * bl + lo * bh);
    hi = p + e;
    lo = e - (hi - p);
  }
  function expDD(y) {
    const k = Math.round(y / L1);
    hi = y;
    lo = 0.0;
    addDD(-k * L1, -fma(k, L1, -k * L1)); // y - k L1 (the product's rest by an exact fma)
    addDD(-k * L2, -fma(k, L2, -k * L2));
    addDD(-k * L3, 0.0); // r = y - k ln2/128, |r| <= ln2/256 or so
    const rh = hi, rl = lo;
    // e^r = 1 + r (1 + r (1/2 + r (1/6 + r (1/24 + r q)))), q = 1/5! + .. (plain doubles: below 2^-60 of the sum)
    const q = F5 + rh * (F6 + rh * (F7 + rh * (F8 + rh * F9)));
    hi = TWENTYFOURTH_HI;
    lo = TWENTYFOURTH_LO;
    addDD(rh * q, 0.0);
    mulDD(rh, rl);
    addDD(SIXTH_HI, SIXTH_LO);
    mulDD(rh, rl);
    addDD(0.5, 0.0);
    mulDD(rh, rl);
    addDD(1.0, 0.0);
    mulDD(rh, rl);
    addDD(1.0, 0.0);
    const j = ((k % 128) + 128) % 128;
    mulDD(H[j], H[j] * T[j]);
    const scale = POW2[(k - j) / 128 + 1050];
    DD[0] = hi * scale;
    DD[1] = lo * scale;
    return DD;
  }

  function log(x) {
    const y = Math.log(x);
    if (!(x >= MIN_NORMAL) || x === Infinity || x === 1) return y;
    expDD(y);
    const d = ((x - DD[0]) - DD[1]) / DD[0]; // x / e^y - 1; x - e^y's high part is exact (they are that close)
    return y + (d - 0.5 * d * d); // log(1 + d), |d| < 2^-40
  }

  const api = { exp, log, fma, expDD, H, T };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  root.RebelLibm = api;
})(typeof self !== "undefined" ? self : globalThis);
