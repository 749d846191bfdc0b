#pragma once

// SIMD scanning for the session log's JSON writer and reader; UTF-8 itself
// (sequence lengths, replacement) is base/utf8.hpp.

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ava::session::json_scan {

// How many of the 16 bytes at `p` come before the first one a JSON string
// treats specially -- '"', '\\', a control character below 0x20 or a
// non-ASCII byte -- 16 if there is none. Lets the string writer and scanner
// step over plain text 16 bytes at a time.
inline unsigned plain_prefix16(const char* p) {
#if defined(__SSE2__)
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // Signed bytes: below 0x20 catches controls and (as negatives) bytes >= 0x80.
  const __m128i special = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
      _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
  const auto mask = static_cast<unsigned>(_mm_movemask_epi8(special));
  return mask == 0 ? 16 : static_cast<unsigned>(__builtin_ctz(mask));
#else
  unsigned i = 0;
  while (i < 16) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
    ++i;
  }
  return i;
#endif
}

// The same with only '"' and '\\' special: for text already validated.
inline unsigned unquoted_prefix16(const char* p) {
#if defined(__SSE2__)
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i special =
      _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
  const auto mask = static_cast<unsigned>(_mm_movemask_epi8(special));
  return mask == 0 ? 16 : static_cast<unsigned>(__builtin_ctz(mask));
#else
  unsigned i = 0;
  while (i < 16 && p[i] != '"' && p[i] != '\\') ++i;
  return i;
#endif
}

}  // namespace ava::session::json_scan
