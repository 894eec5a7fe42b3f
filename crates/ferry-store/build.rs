//! Rebuilds the store when a migration changes: `sqlx::migrate!` embeds the SQL files at
//! compile time, and cargo would not otherwise know they are inputs.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
