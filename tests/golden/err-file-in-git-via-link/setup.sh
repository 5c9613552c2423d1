mkdir -p vendor/.git/hooks && ln -s .git/hooks vendor/hooks
