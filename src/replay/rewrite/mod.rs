//! Rewriting an archived page so that everything it loads or links to points back into
//! the collection: URLs (`url`), stylesheets (`css`) and HTML (`html`, streaming).

pub mod css;
pub mod html;
pub mod url;
