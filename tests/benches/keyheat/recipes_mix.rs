//! Recipes: recipes created and read again.

use stack_tests::recipes::{pancakes, recipe_path};
use stack_tests::TestStack;

use super::{name, Bench};

pub(super) async fn recipes(b: &mut Bench, t: &TestStack) {
    let mut cooks = Vec::new();
    for n in 0..8 {
        cooks.push(t.cook(&name("cook", n)).await);
    }
    let mut ids = Vec::new();
    let creates = async {
        for _ in 0..5 {
            for cook in &cooks {
                ids.push((cook.clone(), t.create_recipe(cook, &pancakes()).await));
            }
        }
    };
    // 1M users making 2,000 recipes a second.
    b.measure("recipes", "create a recipe", 2000.0, 1e6, 40, creates)
        .await;
    for (cook, id) in &ids {
        assert_eq!(t.get_auth(&recipe_path(id), cook).await.status(), 200);
    }
    let reads = async {
        for (cook, id) in &ids {
            assert_eq!(t.get_auth(&recipe_path(id), cook).await.status(), 200);
        }
    };
    // Read again within minutes of the last reading: the steady state of 20,000 a second.
    b.measure("recipes", "read a recipe again", 20_000.0, 1e6, 40, reads)
        .await;
}
