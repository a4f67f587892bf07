#[path = "build/google.rs"]
mod google;

fn main() {
    google::build();
}
