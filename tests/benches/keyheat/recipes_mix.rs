//! Recipes: recipes created and read again, searched, planned and shopped for.

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
    // Each cook searched once before: the steady state reads the mark and the cards.
    for cook in &cooks {
        let path = "/api/recipes/recipes?q=flour";
        assert_eq!(t.get_auth(path, cook).await.status(), 200);
    }
    let searches = async {
        for _ in 0..5 {
            for cook in &cooks {
                let path = "/api/recipes/recipes?q=pancakes&tag=breakfast";
                assert_eq!(t.get_auth(path, cook).await.status(), 200);
            }
        }
    };
    // 1M users searching 5,000 times a second: every key is the searcher's own partition.
    b.measure("recipes", "search recipes", 5000.0, 1e6, 40, searches)
        .await;
    let plans = async {
        for (n, (cook, id)) in ids.iter().enumerate() {
            let path = format!("/api/recipes/plan/2026-12-{:02}/dinner", 1 + n % 28);
            let body = serde_json::json!({"entries": [{"recipeId": id, "portions": 4}]});
            assert_eq!(t.put_json_auth(&path, cook, &body).await.status(), 200);
        }
    };
    // 1M users planning 1,000 meals a second.
    b.measure("recipes", "plan a meal", 1000.0, 1e6, 40, plans)
        .await;
    let lists = async {
        for _ in 0..5 {
            for cook in &cooks {
                let body = serde_json::json!({"from": "2026-12-01", "to": "2026-12-28"});
                let path = "/api/recipes/shopping-list";
                assert_eq!(t.post_json_auth(path, cook, &body).await.status(), 200);
            }
        }
    };
    // 1M users building 200 shopping lists a second from four weeks of plans.
    b.measure("recipes", "build a shopping list", 200.0, 1e6, 40, lists)
        .await;
}
