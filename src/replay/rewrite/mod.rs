//! Rewriting an archived page so that everything it loads or links to points back into
//! the collection: URLs (`url`), stylesheets (`css`) and HTML (`html`, streaming); and
//! the one change `ir_` makes for wabac.js (`parent_links`).

pub mod css;
pub mod html;
pub mod parent_links;
pub mod url;
