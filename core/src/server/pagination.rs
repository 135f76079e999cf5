//! Opaque cursors for `*/list` pagination.
//!
//! A cursor encodes the offset of the next page; it is base64 so clients treat it as the
//! opaque string the spec says it is. A cursor that does not decode is `-32602`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::protocol::ErrorObject;

const PREFIX: &str = "ferrite:";

/// Encode the offset of the next page.
pub fn encode_cursor(offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{PREFIX}{offset}"))
}

/// Decode a cursor into an offset.
pub fn decode_cursor(cursor: &str) -> Result<usize, ErrorObject> {
    let invalid = || ErrorObject::invalid_params(format!("Invalid cursor: {cursor:?}"));
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let text = std::str::from_utf8(&bytes).map_err(|_| invalid())?;
    text.strip_prefix(PREFIX).and_then(|n| n.parse().ok()).ok_or_else(invalid)
}

/// The page of `items` starting at `cursor`, and the cursor of the next page. A page size of
/// 0 means no pagination.
pub fn page<'a, T>(
    items: &'a [T],
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(&'a [T], Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(c) => decode_cursor(c)?,
    };
    if start > items.len() {
        return Err(ErrorObject::invalid_params("Invalid cursor: past the end of the list"));
    }
    if page_size == 0 {
        return Ok((&items[start..], None));
    }
    let end = (start + page_size).min(items.len());
    let next = (end < items.len()).then(|| encode_cursor(end));
    Ok((&items[start..end], next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_walk_the_list() {
        let items: Vec<u32> = (0..5).collect();
        let (p1, c1) = page(&items, None, 2).unwrap();
        assert_eq!(p1, &[0, 1]);
        let (p2, c2) = page(&items, c1.as_deref(), 2).unwrap();
        assert_eq!(p2, &[2, 3]);
        let (p3, c3) = page(&items, c2.as_deref(), 2).unwrap();
        assert_eq!(p3, &[4]);
        assert!(c3.is_none());
    }

    #[test]
    fn invalid_cursor_is_invalid_params() {
        let items = [1, 2];
        assert_eq!(page(&items, Some("nope!"), 1).unwrap_err().code, crate::protocol::code::INVALID_PARAMS);
        assert_eq!(page(&items, Some(&encode_cursor(9)), 1).unwrap_err().code, crate::protocol::code::INVALID_PARAMS);
    }
}
